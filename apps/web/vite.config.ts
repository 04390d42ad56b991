import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// In development `/v1` goes to the API server, so the browser stays on one origin (no CORS).
// The API key is typed in by the user at run time: nothing secret is read from the environment.
const apiUrl = process.env.API_URL ?? 'http://localhost:3000';

export default defineConfig({
  plugins: [react()],
  server: {
    proxy: { '/v1': { target: apiUrl, changeOrigin: true } },
  },
  preview: {
    proxy: { '/v1': { target: apiUrl, changeOrigin: true } },
  },
  build: { target: 'es2022', sourcemap: true },
});
