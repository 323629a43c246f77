// Preloaded into every service process of the reliability suite (never in production): a full
// garbage collection on SIGUSR2, so the soak can read a process's RSS after a collection.
process.on('SIGUSR2', () => {
  if (typeof globalThis.gc === 'function') globalThis.gc();
});
