import { ME_PATH } from './api/auth';
import { startEarly } from './api/early-requests';
import { leadsPagePath, OPENING_LEAD_QUERY } from './api/leads';

/*
 * Run before the app (index.html lists it first): the requests the opening screen needs, so
 * they travel while the app's scripts are parsed and run. Every screen but sign-in and sign-up
 * waits for the session; /leads (where / goes) and its panels for the first page of leads.
 */
const path = location.pathname.replace(/\/+$/, '') || '/';
if (path !== '/sign-in' && path !== '/sign-up') {
  startEarly(ME_PATH);
  if (path === '/' || path === '/leads' || /^\/leads\/(?!import$)[^/]+$/.test(path)) {
    startEarly(leadsPagePath(OPENING_LEAD_QUERY, null));
  }
}
