import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/** The script that starts the opening screen's requests before the app runs (its own file). */
const FIRST_REQUESTS = 'src/first-requests.ts';
/** The screen the console opens on (`/` goes to /leads): its code is fetched with the app's. */
const OPENING_SCREEN = 'src/screens/leads/leads-screen.tsx';

/**
 * index.html runs src/first-requests.ts first, as a file of its own and `async` (it waits for
 * neither the page nor the styles): left in index.html beside main.tsx, Vite would bundle the
 * two into one script, run only once all of the app's code is parsed, and the requests would
 * start no earlier than the app's own. The opening screen's files are preloaded beside the
 * app's, not asked for only once the app runs (the budget of the initial JavaScript counts
 * them: scripts/bench/stack/console.ts).
 */
function firstRequestsFirst(): Plugin {
  return {
    name: 'first-requests-first',
    transformIndexHtml: {
      order: 'post',
      handler(html, context) {
        const script = (src: string) => ({
          tag: 'script',
          attrs: { type: 'module', async: true, crossorigin: true, src },
          injectTo: 'head-prepend' as const,
        });
        if (!context.bundle) return [script(`/${FIRST_REQUESTS}`)];
        const chunks = Object.values(context.bundle).flatMap((file) =>
          file.type === 'chunk' ? [file] : [],
        );
        const entry = chunks.find((chunk) => chunk.isEntry && chunk.name === 'first-requests');
        const screen = chunks.find((chunk) => chunk.facadeModuleId?.endsWith(OPENING_SCREEN));
        if (!entry || !screen) throw new Error(`${FIRST_REQUESTS} or ${OPENING_SCREEN} not built`);
        const preloads = [...entry.imports, screen.fileName, ...screen.imports];
        return [
          script(`/${entry.fileName}`),
          // Each file once (Vite links those the app imports at once already).
          ...[...new Set(preloads)]
            .filter((file) => !html.includes(`"/${file}"`))
            .map((file) => ({
              tag: 'link',
              attrs: { rel: 'modulepreload', crossorigin: true, href: `/${file}` },
              injectTo: 'head' as const,
            })),
        ];
      },
    },
  };
}

// Static files for the gateway to serve at / (services/console/dist). No inline script: the
// console's Content-Security-Policy allows scripts from its own origin only.
export default defineConfig({
  plugins: [react(), firstRequestsFirst()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // A module preload polyfill would be an inline script; every supported browser has it.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    rollupOptions: { input: { index: 'index.html', 'first-requests': FIRST_REQUESTS } },
  },
  server: {
    // `npm run dev -w services/console` next to `npm start`: the API on the gateway's origin.
    proxy: { '/api': 'http://localhost:8080' },
  },
});
