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
];

/** The main navigation landmark: one link per screen, the current one marked for assistive tech. */
export function MainNavigation() {
  return (
    <nav aria-label="Main" className="main-nav">
      <ul>
        {SCREENS.map((name) => (
          <li key={name}>
            <NavLink to={`/${name.toLowerCase()}`}>{name}</NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
