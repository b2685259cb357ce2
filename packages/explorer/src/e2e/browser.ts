import { type Browser, chromium } from "playwright-core";

/** Debian's chromium; the tests never download a browser. */
export const CHROMIUM_PATH = "/usr/bin/chromium";

/**
 * Launches the system chromium headless. Playwright gives each launch a new, empty profile directory
 * and removes it on close; the flags keep chromium from calling home.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
