import { Link, Outlet, useLocation } from 'react-router';
import { useMe } from '../session/use-me';
import { Problem } from '../ui/problem';
import { Loading } from '../ui/states';
import { MainNavigation } from './main-navigation';
import { SignOutButton } from './sign-out-button';
import { TenantSwitcher } from './tenant-switcher';

/** Every signed-in screen: the header (tenant, invitations, sign-out), the navigation, the screen. */
export function Layout() {
  const me = useMe();
  const location = useLocation();
  if (me.isPending) return <Loading what="your account" />;
  if (me.isError) return <Problem error={me.error} onRetry={() => void me.refetch()} />;
  const { user, selectedTenant, invitations, memberships } = me.data;
  const needsTenant = !selectedTenant && location.pathname !== '/invitations';
  return (
    <div className="shell">
      <header className="top-bar">
        <Link to="/leads" className="brand">
          CRM
        </Link>
        <TenantSwitcher me={me.data} />
        <Link to="/invitations">
          Invitations{invitations.length > 0 && ` (${invitations.length} pending)`}
        </Link>
        <span className="muted">{user.email}</span>
        <SignOutButton />
      </header>
      <MainNavigation />
      <main className="content">
        {needsTenant ? (
          <section aria-labelledby="screen-title">
            <h1 id="screen-title">Choose a tenant</h1>
            <p>
              {memberships.length > 0
                ? 'Pick the tenant to work in with the Tenant selector above.'
                : 'You are not a member of any tenant yet.'}{' '}
              {invitations.length > 0 && <Link to="/invitations">See your invitations</Link>}
            </p>
          </section>
        ) : (
          <Outlet />
        )}
      </main>
    </div>
  );
}
