// @ts-check
/**
 * The benchmark's output: a console table (ours beside the floor per scenario) and an SVG chart of
 * the same, drawn by hand (no chart library): per scenario two bars of requests per second, the
 * ratio ours/floor written beside them.
 */
'use strict';

const fixed = (value, digits = 0) =>
  value === undefined || value === null || Number.isNaN(value) ? '–' : Number(value).toFixed(digits);
const kib = (bytes) => (bytes === undefined ? '–' : `${(bytes / 1024).toFixed(1)}K`);
const mib = (kb) => (kb === undefined ? '–' : `${(kb / 1024).toFixed(0)}M`);

/** One line per scenario; the floor's columns are empty for scenarios it does not serve (writes, login). */
function formatTable(rows) {
  const header = [
    'scenario',
    'req/s ours',
    'floor',
    'ratio',
    'p50 ours',
    'floor',
    'p99 ours',
    'floor',
    'p99 ratio',
    'CPU ms/req ours',
    'floor',
    'body',
    'gzip',
    'headers',
    'RSS ours',
    'floor',
    'non-2xx',
  ];
  const lines = rows.map((row) => [
    row.name,
    fixed(row.ours.rps),
    fixed(row.floor?.rps),
    row.floor ? fixed(row.ours.rps / row.floor.rps, 2) : '–',
    fixed(row.ours.p50),
    fixed(row.floor?.p50),
    fixed(row.ours.p99),
    fixed(row.floor?.p99),
    row.floor ? fixed(row.ours.p99 / row.floor.p99, 2) : '–',
    fixed(row.ours.cpuMsPerRequest, 2),
    fixed(row.floor?.cpuMsPerRequest, 2),
    kib(row.bytes?.body),
    kib(row.bytes?.gzip),
    row.bytes?.headers === undefined ? '–' : String(row.bytes.headers),
    mib(row.ours.peakRssKb),
    mib(row.floor?.peakRssKb),
    String(row.ours.non2xx + (row.floor?.non2xx ?? 0)),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column].length)));
  const format = (cells) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column])))
      .join('  ');
  return [format(header), ...lines.map(format)].join('\n');
}

const escapeXml = (text) =>
  String(text).replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c] ?? c);

/**
 * Bars of req/s, ours (dark) above the floor (light), one group per scenario the floor also serves.
 * Each group is scaled to its own larger bar: database-bound pages run at tens of requests per second
 * and the current user at hundreds, and it is the two bars of one scenario that are to be compared.
 */
function renderChart(rows, { title, subtitle }) {
  const compared = rows.filter((row) => row.floor);
  const barHeight = 16;
  const groupHeight = barHeight * 2 + 18;
  const left = 190;
  const width = 760;
  const plotWidth = width - left - 170;
  const top = 64;
  const height = top + compared.length * groupHeight + 40;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="12" y="22" font-size="15" font-weight="bold">${escapeXml(title)}</text>`,
    `<text x="12" y="42" fill="#555">${escapeXml(subtitle)}</text>`,
    `<rect x="${left}" y="50" width="10" height="10" fill="#1f5f99"/><text x="${left + 14}" y="59">ours (Express + Mongoose)</text>`,
    `<rect x="${left + 190}" y="50" width="10" height="10" fill="#9cc3e6"/><text x="${left + 204}" y="59">floor (node:http + mongodb driver)</text>`,
  ];
  compared.forEach((row, index) => {
    const y = top + index * groupHeight;
    const ratio = row.ours.rps / row.floor.rps;
    const max = Math.max(1, row.ours.rps, row.floor.rps);
    const scale = (value) => Math.max(1, (value / max) * plotWidth);
    parts.push(
      `<text x="${left - 8}" y="${y + barHeight + 4}" text-anchor="end">${escapeXml(row.name)}</text>`,
      `<rect x="${left}" y="${y}" width="${scale(row.ours.rps).toFixed(1)}" height="${barHeight}" fill="#1f5f99"/>`,
      `<text x="${left + scale(row.ours.rps) + 4}" y="${y + 12}">${fixed(row.ours.rps)} req/s</text>`,
      `<rect x="${left}" y="${y + barHeight + 2}" width="${scale(row.floor.rps).toFixed(1)}" height="${barHeight}" fill="#9cc3e6"/>`,
      `<text x="${left + scale(row.floor.rps) + 4}" y="${y + barHeight + 14}">${fixed(row.floor.rps)} req/s</text>`,
      `<text x="${width - 8}" y="${y + barHeight + 4}" text-anchor="end" font-weight="bold" fill="${ratio >= 0.8 ? '#1a7f37' : '#b42318'}">${fixed(ratio, 2)}×</text>`,
    );
  });
  parts.push(
    `<text x="12" y="${height - 12}" fill="#555">bars scaled per scenario · ratio = ours/floor throughput in the same run, green when ≥ 0.8× (the target)</text>`,
    '</svg>',
  );
  return `${parts.join('\n')}\n`;
}

module.exports = { formatTable, renderChart };
