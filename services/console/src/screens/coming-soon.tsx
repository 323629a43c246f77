import { Link } from 'react-router';

/** A screen not built yet (or an unknown address), inside the console's layout. */
export function ComingSoon({ name, missing = false }: { name: string; missing?: boolean }) {
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">{name}</h1>
      {missing ? (
        <p>There is no such page.</p>
      ) : (
        <p>
          The {name.toLowerCase()} screen is coming. Until then, use the API (
          <a href="/api-docs">API reference</a>).
        </p>
      )}
      <p>
        <Link to="/leads">Go to leads</Link>
      </p>
    </section>
  );
}
