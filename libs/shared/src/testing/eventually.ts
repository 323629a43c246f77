/**
 * Retries `check` until it stops throwing (an assertion that becomes true once asynchronous
 * work lands), or fails with its last error after `timeoutMs`. Not a timing assertion: the
 * timeout only bounds how long a broken build waits.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  timeoutMs = 10_000,
  intervalMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
