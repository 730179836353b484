// @ts-check
/**
 * `npm run mail:last [folder]`: the newest mail development wrote instead of sending it (no SMTP_URL),
 * as a reader sees it: recipient, subject and text, decoded. The .eml file keeps long lines such as a link
 * in quoted-printable pieces (`=3D`, a `=` at each break), which cannot be copied from as they are; the
 * server never logs the link, as it carries a token.
 */
'use strict';
const { readdirSync, readFileSync } = require('node:fs');
const path = require('node:path');
const { simpleParser } = require('mailparser');

const folder = path.resolve(process.argv[2] ?? path.join(__dirname, '..', '..', '.data', 'mail'));

function newestMail() {
  let names;
  try {
    names = readdirSync(folder).filter((name) => name.endsWith('.eml'));
  } catch {
    names = [];
  }
  // the names start with the time written (ISO 8601), so the last in order is the newest
  return names.sort().at(-1);
}

(async () => {
  const name = newestMail();
  if (!name) {
    process.stderr.write(`no mail in ${folder} (development writes one per message when SMTP_URL is unset)\n`);
    process.exit(1);
  }
  const message = await simpleParser(readFileSync(path.join(folder, name)));
  const to = Array.isArray(message.to) ? message.to.map((each) => each.text).join(', ') : message.to?.text;
  process.stdout.write(`${name}\nTo: ${to ?? ''}\nSubject: ${message.subject ?? ''}\n\n${message.text ?? ''}\n`);
})();
