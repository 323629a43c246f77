import type { Logger } from 'pino';

/**
 * Ctrl-C in a terminal signals the whole foreground process group, and the launchers in it
 * (npm's run-script, tsx's watcher of its child) forward the same signal to their child as well:
 * one key press arrives as two signals within milliseconds. A signal this soon after the first is
 * that echo, not a second request.
 */
const ECHO_WINDOW_MS = 1000;

/**
 * Runs `shutdown` once on the first SIGINT or SIGTERM, then exits (0, or 1 if shutdown threw).
 * A second signal while shutting down (past the echo window of the first) exits at once.
 */
export function onShutdownSignal(logger: Logger, shutdown: () => Promise<void>): void {
  let stoppingSince: number | undefined;
  const handle = (signal: NodeJS.Signals) => {
    if (stoppingSince !== undefined) {
      if (Date.now() - stoppingSince < ECHO_WINDOW_MS) return;
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stoppingSince = Date.now();
    logger.info({ signal }, 'shutting down');
    shutdown().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  // Kept for the whole shutdown: with no listener left, a repeated signal would kill the process.
  process.on('SIGINT', handle);
  process.on('SIGTERM', handle);
}
