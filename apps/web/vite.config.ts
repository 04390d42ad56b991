import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// In development `/v1` goes to the API server, so the browser stays on one origin (no CORS).
// Under `pnpm dev` PORT is the API server's port (both apps see the same environment).
// The API key is typed in by the user at run time: nothing secret is read from the environment.
const apiUrl = process.env.API_URL ?? `http://localhost:${process.env.PORT ?? 3000}`;
// A fixed port, so the address `pnpm dev` prints is the one Vite serves on.
const webPort = Number(process.env.WEB_PORT ?? 5173);

export default defineConfig({
  plugins: [react()],
  server: {
    port: webPort,
    strictPort: true,
    proxy: { '/v1': { target: apiUrl, changeOrigin: true } },
  },
  preview: {
    proxy: { '/v1': { target: apiUrl, changeOrigin: true } },
  },
  build: { target: 'es2022', sourcemap: true },
});
