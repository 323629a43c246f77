/**
 * Where sign-in (or sign-up) sends the user once the session exists: the page that sent them
 * there (Problem puts its path and query string in the navigation state, so the consent page
 * comes back with its ?request=), else the leads. Only a path of this console: never another
 * origin (`//host`, or `/\host`, which a browser reads the same), never the sign-in or sign-up
 * page itself.
 */
export function returnTo(state: unknown): string {
  const from = (state as { from?: unknown } | null)?.from;
  if (typeof from !== 'string' || !/^\/(?![/\\])/.test(from)) return '/leads';
  const path = from.replace(/[?#].*$/, '');
  return path === '/sign-in' || path === '/sign-up' ? '/leads' : from;
}
