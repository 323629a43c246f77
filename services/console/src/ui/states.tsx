/** The loading state: announced politely to screen readers. */
export function Loading({ what }: { what: string }) {
  return (
    <p role="status" className="muted">
      Loading {what}…
    </p>
  );
}

/** The empty state: what is missing and, when there is one, what to do about it. */
export function Empty({ children }: { children: React.ReactNode }) {
  return <div className="empty">{children}</div>;
}
