// @ts-check
/**
 * A photo-like banner for the upload measurements: colour blobs at a tenth of a percent of the
 * resolution, scaled up smoothly, with a film grain over them, as JPEG at quality 90. 3000×2000 comes
 * to about 1.9 MB, just under the 2 MB limit: what a phone photo downscaled for the web weighs. Noise
 * alone (the uploads scenario's default PNG) compresses like no photo does; this encodes like one.
 */
'use strict';
const sharp = require('sharp');

async function photoLikeJpeg(width = 3000, height = 2000, grain = 10) {
  const blobs = await sharp({
    create: {
      width: Math.ceil(width / 40),
      height: Math.ceil(height / 40),
      channels: 3,
      noise: { type: 'gaussian', mean: 128, sigma: 70 },
    },
  })
    .resize(width, height, { kernel: 'cubic' })
    .raw()
    .toBuffer();
  const noise = await sharp({
    create: { width, height, channels: 3, noise: { type: 'gaussian', mean: 128, sigma: grain } },
  })
    .raw()
    .toBuffer();
  for (let i = 0; i < blobs.length; i++) blobs[i] = Math.max(0, Math.min(255, blobs[i] + noise[i] - 128));
  return sharp(blobs, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
}

module.exports = { photoLikeJpeg };
