import { Link } from 'react-router';
import { canManage, useRole } from '../../session/use-role';
import { IntegrationSection } from './integration-section';
import { INTEGRATION_KINDS } from './integration-kinds';
import { ReceiversSection } from './receivers-section';

/**
 * Integrations: the receiver URLs to register at each provider, and the tenant's connections
 * and accounts. Connecting, changing and removing is for owners and admins; everyone else
 * reads (docs/integrations.md, Access).
 */
export function IntegrationsScreen() {
  const manage = canManage(useRole().role);
  return (
    <section aria-labelledby="screen-title">
      <div className="screen-head">
        <h1 id="screen-title">Integrations</h1>
        <Link to="/integrations/deliveries" className="button-link">
          Delivery log
        </Link>
      </div>
      {!manage && (
        <p className="muted">
          You can read the integrations. Connecting, changing and removing them needs the owner or
          admin role.
        </p>
      )}
      <ReceiversSection />
      {INTEGRATION_KINDS.map((kind) => (
        <IntegrationSection key={kind.path} kind={kind} manage={manage} />
      ))}
    </section>
  );
}
