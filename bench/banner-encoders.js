// @ts-check
/**
 * `node bench/banner-encoders.js`: how long one banner's variants take to encode, per format and effort,
 * on one core as the API does them (sharp.concurrency(1), one banner at a time), for the photo-like
 * 2 MB banner of bench/lib/photo.js re-encoded as the API re-encodes it. Decides whether AVIF is made
 * (bench/README.md, "Banner variants"). BENCH_ROUNDS rounds (3), the median of each is printed.
 */
'use strict';
const sharp = require('sharp');
const { photoLikeJpeg } = require('./lib/photo');

const WIDTHS = [320, 640, 1280];
const ENCODERS = [
  ['webp', { quality: 80, effort: 0 }],
  ['webp', { quality: 80, effort: 2 }],
  ['webp', { quality: 80, effort: 4 }],
  ['avif', { effort: 0 }],
  ['avif', { effort: 2 }],
  ['avif', { effort: 4 }],
];
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  sharp.concurrency(1);
  const upload = await photoLikeJpeg();
  const reencoded = await sharp(upload).rotate().jpeg({ quality: 90 }).toBuffer();
  const { width } = await sharp(reencoded).metadata();
  const widths = [...WIDTHS.filter((each) => each < Number(width)), Number(width)];
  console.log(
    `banner: ${(upload.length / 1048576).toFixed(2)} MB JPEG, ${width} px wide; variants ${widths.join(', ')}`,
  );
  for (const [format, options] of ENCODERS) {
    const times = [];
    let bytes = [];
    for (let round = 0; round < rounds; round++) {
      const started = process.hrtime.bigint();
      bytes = [];
      for (const each of widths) {
        const out = await sharp(reencoded).resize({ width: each })[format](options).toBuffer();
        bytes.push(out.length);
      }
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    const kb = bytes.map((size) => `${(size / 1024).toFixed(0)}`).join(' / ');
    console.log(
      `${format} ${JSON.stringify(options)}: ${median(times).toFixed(0)} ms per banner; KB per width ${kb}; ` +
        `all ${((bytes.reduce((sum, size) => sum + size, 0) / reencoded.length) * 100).toFixed(0)}% of the banner`,
    );
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
