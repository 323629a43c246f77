import { createBrowserRouter, Navigate } from 'react-router';
import { Layout } from './layout/layout';
import { queryClient } from './query-client';
import { ComingSoon } from './screens/coming-soon';
import { OPENING_LEAD_QUERY } from './api/leads';
import { leadsQuery } from './screens/leads/use-leads';
import { meQuery } from './session/use-me';
import { Loading } from './ui/states';

/** The screens that are not built yet: each says so, inside the same layout. */

/**
 * Each screen's code is loaded when it is first opened (the forms' validation and the table
 * are not in the first download).
 *
 * A loader starts the requests a screen opens with, in the same moment as the screen's code is
 * asked for, instead of after it has loaded and the layout has its session: on a first visit
 * to /leads the session and the first page of leads are asked for side by side. The loaders
 * wait for nothing (the screens show their own loading and error states from the same query
 * cache); a request that fails, say a 401 when signed out, is the screen's to show.
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
    // Where /api/oauth/authorize sends an app's user: signed in, but outside the layout (the
    // question is theirs, not a tenant's screen; no tenant needs to be selected).
    path: '/oauth/consent',
    lazy: () =>
      import('./screens/oauth-consent/consent-screen').then((m) => ({
        Component: m.ConsentScreen,
      })),
    HydrateFallback: () => <Loading what="the console" />,
  },
  {
    path: '/',
    element: <Layout />,
    loader: () => {
      void queryClient.prefetchQuery(meQuery);
      return null;
    },
    children: [
      { index: true, element: <Navigate to="/leads" replace /> },
      {
        path: 'leads',
        loader: () => {
          void queryClient.prefetchInfiniteQuery(leadsQuery(OPENING_LEAD_QUERY));
          return null;
        },
        lazy: () =>
          import('./screens/leads/leads-screen').then((m) => ({ Component: m.LeadsScreen })),
        children: [
          {
            path: 'new',
            lazy: () => import('./screens/leads/new-lead').then((m) => ({ Component: m.NewLead })),
          },
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
        path: 'deals/list',
        lazy: () =>
          import('./screens/deals/deal-list-screen').then((m) => ({
            Component: m.DealListScreen,
          })),
        children: [
          {
            path: ':dealId',
            lazy: () =>
              import('./screens/deals/deal-editor').then((m) => ({ Component: m.DealEditor })),
          },
        ],
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
        path: 'conversations',
        lazy: () =>
          import('./screens/conversations/conversations-screen').then((m) => ({
            Component: m.ConversationsScreen,
          })),
      },
      {
        path: 'conversations/:conversationId',
        lazy: () =>
          import('./screens/conversations/conversation-thread').then((m) => ({
            Component: m.ConversationThread,
          })),
      },
      {
        path: 'forms',
        lazy: () =>
          import('./screens/forms/forms-screen').then((m) => ({ Component: m.FormsScreen })),
      },
      {
        path: 'forms/new',
        lazy: () =>
          import('./screens/forms/form-editor').then((m) => ({ Component: m.FormEditorScreen })),
      },
      {
        path: 'forms/:formId',
        lazy: () => import('./screens/forms/form-page').then((m) => ({ Component: m.FormPage })),
      },
      {
        path: 'forms/:formId/edit',
        lazy: () =>
          import('./screens/forms/form-editor').then((m) => ({ Component: m.FormEditorScreen })),
      },
      {
        path: 'integrations',
        lazy: () =>
          import('./screens/integrations/integrations-screen').then((m) => ({
            Component: m.IntegrationsScreen,
          })),
      },
      {
        path: 'integrations/deliveries',
        lazy: () =>
          import('./screens/integrations/deliveries-screen').then((m) => ({
            Component: m.DeliveriesScreen,
          })),
        children: [
          {
            path: ':eventId',
            lazy: () =>
              import('./screens/integrations/delivery-detail').then((m) => ({
                Component: m.DeliveryDetail,
              })),
          },
        ],
      },
      {
        path: 'workflows',
        lazy: () =>
          import('./screens/workflows/workflows-screen').then((m) => ({
            Component: m.WorkflowsScreen,
          })),
      },
      {
        path: 'workflows/new',
        lazy: () =>
          import('./screens/workflows/workflow-builder').then((m) => ({
            Component: m.WorkflowBuilderScreen,
          })),
      },
      {
        path: 'workflows/runs',
        lazy: () =>
          import('./screens/workflows/run-history').then((m) => ({
            Component: m.RunHistoryScreen,
          })),
      },
      {
        path: 'workflows/runs/:runId',
        lazy: () => import('./screens/workflows/run-page').then((m) => ({ Component: m.RunPage })),
      },
      {
        path: 'workflows/:workflowId',
        lazy: () =>
          import('./screens/workflows/workflow-page').then((m) => ({
            Component: m.WorkflowPage,
          })),
      },
      {
        path: 'workflows/:workflowId/edit',
        lazy: () =>
          import('./screens/workflows/workflow-builder').then((m) => ({
            Component: m.WorkflowBuilderScreen,
          })),
      },
      {
        path: 'members',
        lazy: () =>
          import('./screens/members/members-screen').then((m) => ({ Component: m.MembersScreen })),
      },
      {
        path: 'mcp-keys',
        lazy: () =>
          import('./screens/mcp-keys/mcp-keys-screen').then((m) => ({
            Component: m.McpKeysScreen,
          })),
      },
      {
        path: 'events',
        lazy: () =>
          import('./screens/events/events-screen').then((m) => ({ Component: m.EventsScreen })),
      },
      {
        path: 'invitations',
        lazy: () =>
          import('./screens/invitations').then((m) => ({ Component: m.InvitationsScreen })),
      },
      { path: '*', element: <ComingSoon name="This page" missing /> },
    ],
  },
]);
