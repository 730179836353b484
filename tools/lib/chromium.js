// @ts-check
/**
 * How the live checks start Chromium (tools/browser-check, tools/spa-check): Debian's package
 * (tools/lib/install-chromium.sh installs it), driven by playwright-core, headless, without a sandbox
 * (root in CI), and without the background traffic that has nowhere to go on this network.
 */
'use strict';
const { chromium } = require('playwright-core');

const CHROMIUM_LAUNCH_OPTIONS = {
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};

/** A browser with no profile (every context off the record). */
const launchChromium = () => chromium.launch(CHROMIUM_LAUNCH_OPTIONS);

/** A browser on the profile in `profileDir` (its preferences apply), as one persistent context. */
const launchChromiumWithProfile = (/** @type {string} */ profileDir, { timeout = 60_000 } = {}) =>
  chromium.launchPersistentContext(profileDir, { ...CHROMIUM_LAUNCH_OPTIONS, timeout });

module.exports = { CHROMIUM_LAUNCH_OPTIONS, launchChromium, launchChromiumWithProfile };
