import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Static files for the gateway to serve at / (services/console/dist). No inline script: the
// console's Content-Security-Policy allows scripts from its own origin only.
export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // A module preload polyfill would be an inline script; every supported browser has it.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
  server: {
    // `npm run dev -w services/console` next to `npm start`: the API on the gateway's origin.
    proxy: { '/api': 'http://localhost:8080' },
  },
});
