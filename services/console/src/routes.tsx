import { createBrowserRouter, Navigate } from 'react-router';
import { Layout } from './layout/layout';
import { ComingSoon } from './screens/coming-soon';
import { InvitationsScreen } from './screens/invitations';
import { LeadDetail } from './screens/leads/lead-detail';
import { LeadsScreen } from './screens/leads/leads-screen';
import { SignInScreen } from './screens/sign-in';
import { SignUpScreen } from './screens/sign-up';

/** The screens that are not built yet: each says so, inside the same layout. */
export const COMING = [
  'Deals',
  'Contacts',
  'Products',
  'Conversations',
  'Activities',
  'Forms',
  'Exports',
];

export const router = createBrowserRouter([
  { path: '/sign-in', element: <SignInScreen /> },
  { path: '/sign-up', element: <SignUpScreen /> },
  {
    path: '/',
    element: <Layout />,
    children: [
      { index: true, element: <Navigate to="/leads" replace /> },
      {
        path: 'leads',
        element: <LeadsScreen />,
        children: [{ path: ':leadId', element: <LeadDetail /> }],
      },
      { path: 'invitations', element: <InvitationsScreen /> },
      ...COMING.map((name) => ({
        path: name.toLowerCase(),
        element: <ComingSoon name={name} />,
      })),
      { path: '*', element: <ComingSoon name="This page" missing /> },
    ],
  },
]);
