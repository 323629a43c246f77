// Preloaded into every service process of the reliability suite (never in production): a full,
// compacting garbage collection on SIGUSR2, so the soak can read a process's RSS after it.
// A plain gc() frees objects but compacts only the pages V8's heuristics pick: after a soak the
// old space was left half empty (crm-api 50 MB committed for 26 MB live), so RSS measured how
// fragmented the heap happened to be, not what the process holds. Compacting just this one
// collection makes the committed heap equal the live heap; the freed pages reach the OS
// within a few hundred milliseconds (the reader waits for that).
const v8 = require('node:v8');

process.on('SIGUSR2', () => {
  if (typeof globalThis.gc !== 'function') return;
  v8.setFlagsFromString('--compact-on-every-full-gc');
  try {
    globalThis.gc();
  } finally {
    v8.setFlagsFromString('--no-compact-on-every-full-gc');
  }
});
