// The picture the fake connector serves for Image objects: a real PNG of the spec's 240x120 pixels.
import { PNG } from 'pngjs';
import { LIMITS } from '../lib/limits.js';

/** A 240x120 PNG (a two-colour gradient, so browsers and decoders show something real); built once per fake connector. */
export function cardPng(): Buffer {
  const png = new PNG({ width: LIMITS.imageWidth, height: LIMITS.imageHeight });
  for (let y = 0; y < png.height; y++) {
    for (let x = 0; x < png.width; x++) {
      const i = (png.width * y + x) << 2;
      png.data[i] = Math.round((x / png.width) * 255);
      png.data[i + 1] = 120;
      png.data[i + 2] = Math.round((y / png.height) * 255);
      png.data[i + 3] = 255;
    }
  }
  return PNG.sync.write(png);
}
