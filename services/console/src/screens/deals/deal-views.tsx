import { NavLink } from 'react-router';

/** The two views of the deals: the board by stage and the filterable list. */
export function DealViews() {
  return (
    <nav aria-label="Deal views" className="view-switch">
      <NavLink to="/deals" end>
        Board
      </NavLink>
      <NavLink to="/deals/list">List</NavLink>
    </nav>
  );
}
