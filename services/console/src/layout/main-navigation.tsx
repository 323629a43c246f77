import { NavLink } from 'react-router';

const SCREENS = [
  'Leads',
  'Deals',
  'Contacts',
  'Products',
  'Conversations',
  'Activities',
  'Forms',
  'Exports',
  'Integrations',
  'Workflows',
  'MCP keys',
  'Members',
  'Events',
];

/** `MCP keys` -> `/mcp-keys`. */
const pathOf = (name: string) => `/${name.toLowerCase().replaceAll(' ', '-')}`;

/** The main navigation landmark: one link per screen, the current one marked for assistive tech. */
export function MainNavigation() {
  return (
    <nav aria-label="Main" className="main-nav">
      <ul>
        {SCREENS.map((name) => (
          <li key={name}>
            <NavLink to={pathOf(name)}>{name}</NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
