/** Real image files made in the test, with sharp: noise, so that sizes are realistic and not all-zero. */
import sharp from 'sharp';

export type ImageFormat = 'png' | 'jpeg' | 'webp';

export async function makeImage(format: ImageFormat, width = 64, height = 48): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 7919 + (i >> 7) * 104729) % 251;
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    [format]()
    .toBuffer();
}
