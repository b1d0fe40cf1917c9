// SHA-1 (FIPS 180-4) of a string's UTF-8 bytes, as hex: the hash cloud-provider-aws names target groups with, so this
// plugin's target groups carry the same names. Not used for anything secret.

function rotl(x: u32, n: u32): u32 {
  return (x << n) | (x >>> (32 - n));
}

export function sha1Hex(text: string): string {
  const data = Uint8Array.wrap(String.UTF8.encode(text));
  const bitLength = <u64>data.length * 8;
  const padded = new Uint8Array(((data.length + 8) / 64 + 1) * 64);
  padded.set(data);
  padded[data.length] = 0x80;
  for (let i = 0; i < 8; i++) padded[padded.length - 1 - i] = <u8>(bitLength >> (<u64>i * 8));
  let h0: u32 = 0x67452301;
  let h1: u32 = 0xefcdab89;
  let h2: u32 = 0x98badcfe;
  let h3: u32 = 0x10325476;
  let h4: u32 = 0xc3d2e1f0;
  const w = new StaticArray<u32>(80);
  for (let block = 0; block < padded.length; block += 64) {
    for (let t = 0; t < 16; t++) {
      const p = block + t * 4;
      w[t] = (<u32>padded[p] << 24) | (<u32>padded[p + 1] << 16) | (<u32>padded[p + 2] << 8) | <u32>padded[p + 3];
    }
    for (let t = 16; t < 80; t++) w[t] = rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    for (let t = 0; t < 80; t++) {
      let f: u32;
      let k: u32;
      if (t < 20) {
        f = (b & c) | (~b & d);
        k = 0x5a827999;
      } else if (t < 40) {
        f = b ^ c ^ d;
        k = 0x6ed9eba1;
      } else if (t < 60) {
        f = (b & c) | (b & d) | (c & d);
        k = 0x8f1bbcdc;
      } else {
        f = b ^ c ^ d;
        k = 0xca62c1d6;
      }
      const temp = rotl(a, 5) + f + e + k + w[t];
      e = d;
      d = c;
      c = rotl(b, 30);
      b = a;
      a = temp;
    }
    h0 += a;
    h1 += b;
    h2 += c;
    h3 += d;
    h4 += e;
  }
  return hex32(h0) + hex32(h1) + hex32(h2) + hex32(h3) + hex32(h4);
}

function hex32(x: u32): string {
  const s = x.toString(16);
  return "00000000".substring(s.length) + s;
}
