import type { RunStatus as Status } from '../../api/workflows';

const TEXT: Record<Status, string> = { running: 'Running', success: 'Succeeded', failed: 'Failed' };

/** A run's status in words (never by colour alone). */
export function RunStatus({ status }: { status: Status }) {
  return <span className={`run-status run-${status}`}>{TEXT[status]}</span>;
}
