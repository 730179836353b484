// @ts-check
/**
 * How the live checks start Debian's Chromium (tools/browser-check, tools/spa-check): headless, without
 * a sandbox (root in CI), and without the background traffic that has nowhere to go on this network.
 */
'use strict';

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

module.exports = { CHROMIUM_LAUNCH_OPTIONS };
