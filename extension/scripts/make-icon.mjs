// Draws icon.png (128x128 RGBA): three fence pickets on a rounded blue tile.
// Run once with `node scripts/make-icon.mjs`; the PNG is committed.
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const SIZE = 128;
const BLUE = [31, 78, 121, 255];
const GOLD = [242, 193, 78, 255];
const CLEAR = [0, 0, 0, 0];

function insideRoundedTile(x, y, r = 20) {
  const cx = Math.min(Math.max(x, r), SIZE - 1 - r);
  const cy = Math.min(Math.max(y, r), SIZE - 1 - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
}

function onPicket(x, y) {
  for (const left of [22, 52, 82]) {
    const mid = left + 12;
    if (x < left || x > left + 24 || y > 104) continue;
    // Pointed top: the tip at y=30 widens to the full width at y=44.
    if (y >= 44 || (y >= 30 && Math.abs(x - mid) <= (y - 30) * (12 / 14))) return true;
  }
  return false;
}

const onRail = (x, y) => x >= 14 && x <= 114 && ((y >= 56 && y <= 64) || (y >= 84 && y <= 92));

const raw = Buffer.alloc(SIZE * (SIZE * 4 + 1));
for (let y = 0; y < SIZE; y++) {
  raw[y * (SIZE * 4 + 1)] = 0; // filter: none
  for (let x = 0; x < SIZE; x++) {
    const color = !insideRoundedTile(x, y) ? CLEAR : onPicket(x, y) || onRail(x, y) ? GOLD : BLUE;
    raw.set(color, y * (SIZE * 4 + 1) + 1 + x * 4);
  }
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buffer) {
  let c = 0xffffffff;
  for (const byte of buffer) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

const header = Buffer.alloc(13);
header.writeUInt32BE(SIZE, 0);
header.writeUInt32BE(SIZE, 4);
header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk('IHDR', header),
  chunk('IDAT', deflateSync(raw, { level: 9 })),
  chunk('IEND', Buffer.alloc(0)),
]);
writeFileSync(new URL('../icon.png', import.meta.url), png);
console.log(`icon.png: ${png.length} bytes`);
