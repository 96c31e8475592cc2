import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = import.meta.dirname;

/** Builds the dashboard into dist/dashboard: index.html plus hashed files under assets/. */
export default defineConfig({
  root,
  base: '/',
  // Nothing to copy verbatim: every asset is imported and hashed.
  publicDir: false,
  plugins: [react()],
  build: {
    outDir: path.resolve(root, '../../dist/dashboard'),
    emptyOutDir: true,
    assetsDir: 'assets',
    // Every browser the dashboard supports preloads modules itself.
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    // .vite/manifest.json: which chunks the entry imports eagerly (bench/dashboard/bundle.ts reads it).
    manifest: true,
  },
});
