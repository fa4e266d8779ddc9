import { existsSync } from 'node:fs'
import { chromium, type Browser, type LaunchOptions } from 'playwright-core'

/**
 * The browser tests drive the system's Chromium (Debian's `chromium` package) through
 * playwright-core, which downloads no browser of its own. CI installs the package when it is
 * missing (.ci/run). Set DIALER_CHROMIUM to use another Chromium or Chrome binary.
 */
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable', '/snap/bin/chromium']

/** The path of a Chromium to drive, or null when none is installed. */
export function findChromium(): string | null {
  const fromEnv = process.env.DIALER_CHROMIUM
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : null
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    const found = Bun.which(name)
    if (found) return found
  }
  return CANDIDATES.find((path) => existsSync(path)) ?? null
}

/**
 * Launches a headless Chromium. Throws a message saying how to install one when there is none.
 * `--no-sandbox`: CI runs as root in a container, where Chromium's sandbox cannot start.
 * Close the browser in the test's afterAll (`await browser.close()`); it must never outlive the test.
 */
export async function launchChromium(options: LaunchOptions = {}): Promise<Browser> {
  const executablePath = findChromium()
  if (!executablePath) {
    throw new Error(
      'No Chromium found for the browser tests: install it (Debian/Ubuntu: `apt-get install -y chromium`) ' +
        'or set DIALER_CHROMIUM to a Chromium or Chrome binary.',
    )
  }
  return chromium.launch({
    headless: true,
    ...options,
    executablePath,
    args: ['--no-sandbox', '--disable-dev-shm-usage', ...(options.args ?? [])],
  })
}
