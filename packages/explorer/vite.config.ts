import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

/** Builds the browser app from web/ into dist-web/, which the explorer server serves. */
export default defineConfig({
  root: "web",
  base: "/",
  plugins: [react()],
  build: {
    outDir: "../dist-web",
    emptyOutDir: true,
    // Everything is bundled: the page never loads scripts, fonts or styles from another origin.
    assetsInlineLimit: 0,
    sourcemap: false,
  },
});
