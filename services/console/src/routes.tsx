import { createBrowserRouter, Navigate } from 'react-router';
import { Layout } from './layout/layout';
import { ComingSoon } from './screens/coming-soon';
import { Loading } from './ui/states';

/** The screens that are not built yet: each says so, inside the same layout. */
export const COMING = ['Conversations', 'Forms'];

/**
 * Each screen's code is loaded when it is first opened (the forms' validation and the table
 * are not in the first download).
 */
export const router = createBrowserRouter([
  {
    path: '/sign-in',
    lazy: () => import('./screens/sign-in').then((m) => ({ Component: m.SignInScreen })),
    HydrateFallback: () => <Loading what="the console" />,
  },
  {
    path: '/sign-up',
    lazy: () => import('./screens/sign-up').then((m) => ({ Component: m.SignUpScreen })),
  },
  {
    path: '/',
    element: <Layout />,
    children: [
      { index: true, element: <Navigate to="/leads" replace /> },
      {
        path: 'leads',
        lazy: () =>
          import('./screens/leads/leads-screen').then((m) => ({ Component: m.LeadsScreen })),
        children: [
          {
            path: ':leadId',
            lazy: () =>
              import('./screens/leads/lead-detail').then((m) => ({ Component: m.LeadDetail })),
          },
        ],
      },
      {
        // A screen of its own, not the leads list's panel (a static segment outranks :leadId).
        path: 'leads/import',
        lazy: () =>
          import('./screens/lead-import/lead-import-screen').then((m) => ({
            Component: m.LeadImportScreen,
          })),
      },
      {
        path: 'exports',
        lazy: () =>
          import('./screens/exports/exports-screen').then((m) => ({ Component: m.ExportsScreen })),
      },
      {
        path: 'deals',
        lazy: () =>
          import('./screens/deals/deals-screen').then((m) => ({ Component: m.DealsScreen })),
      },
      {
        path: 'contacts',
        lazy: () =>
          import('./screens/contacts/contacts-screen').then((m) => ({
            Component: m.ContactsScreen,
          })),
        children: [
          {
            path: ':contactId',
            lazy: () =>
              import('./screens/contacts/contact-detail').then((m) => ({
                Component: m.ContactDetail,
              })),
          },
        ],
      },
      {
        path: 'products',
        lazy: () =>
          import('./screens/products/products-screen').then((m) => ({
            Component: m.ProductsScreen,
          })),
        children: [
          {
            path: ':productId',
            lazy: () =>
              import('./screens/products/product-detail').then((m) => ({
                Component: m.ProductDetail,
              })),
          },
        ],
      },
      {
        path: 'activities',
        lazy: () =>
          import('./screens/activities/activities-screen').then((m) => ({
            Component: m.ActivitiesScreen,
          })),
        children: [
          {
            path: ':activityId',
            lazy: () =>
              import('./screens/activities/activity-detail').then((m) => ({
                Component: m.ActivityDetail,
              })),
          },
        ],
      },
      {
        path: 'invitations',
        lazy: () =>
          import('./screens/invitations').then((m) => ({ Component: m.InvitationsScreen })),
      },
      ...COMING.map((name) => ({
        path: name.toLowerCase(),
        element: <ComingSoon name={name} />,
      })),
      { path: '*', element: <ComingSoon name="This page" missing /> },
    ],
  },
]);
