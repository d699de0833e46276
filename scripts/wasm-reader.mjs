// Reading the wasm binary format, for the scripts that look into the built modules
// (wasm-attribution.mjs, short-imports.mjs); no dependency, nothing to install.

/** A cursor over a wasm module's bytes. */
export class WasmReader {
  constructor(bytes, file = 'wasm') {
    if (bytes.length < 8 || bytes.readUInt32LE(0) !== 0x6d736100) throw new Error(`${file}: not a wasm file`);
    this.bytes = bytes;
    this.pos = 8;
  }

  /** An unsigned LEB128 number. */
  uleb() {
    let result = 0;
    let shift = 0;
    for (;;) {
      const byte = this.bytes[this.pos++];
      result += (byte & 0x7f) * 2 ** shift;
      shift += 7;
      if ((byte & 0x80) === 0) return result;
    }
  }

  /** A length-prefixed UTF-8 name. */
  name() {
    const length = this.uleb();
    const text = this.bytes.toString('utf8', this.pos, this.pos + length);
    this.pos += length;
    return text;
  }

  /**
   * Every section, in order, as `{ id, start, bodyStart, end }` (byte offsets: the id byte,
   * the body, the end); the cursor is at the body when one is handed out and moves to its
   * end after, whatever the caller read.
   */
  *sections() {
    while (this.pos < this.bytes.length) {
      const start = this.pos;
      const id = this.bytes[this.pos++];
      const size = this.uleb();
      const section = { id, start, bodyStart: this.pos, end: this.pos + size };
      yield section;
      this.pos = section.end;
    }
  }

  /** One import's kind and description, after its module and field names: `{ kind, bytes }`. */
  importDescription() {
    const kind = this.bytes[this.pos++];
    const start = this.pos;
    const limits = () => {
      const flags = this.uleb();
      this.uleb();
      if (flags & 1) this.uleb();
    };
    if (kind === 0) this.uleb(); // function: its type
    else if (kind === 1) {
      this.pos++; // table: reference type
      limits();
    } else if (kind === 2) limits(); // memory
    else if (kind === 3) this.pos += 2; // global: value type, mutability
    else if (kind === 4) {
      this.pos++; // tag: attribute, type
      this.uleb();
    } else throw new Error(`unknown import kind ${kind}`);
    return { kind, bytes: this.bytes.subarray(start, this.pos) };
  }
}

/** `value` as unsigned LEB128. */
export function encodeUleb(value) {
  const out = [];
  do {
    let byte = value % 128;
    value = Math.floor(value / 128);
    if (value) byte |= 0x80;
    out.push(byte);
  } while (value);
  return Buffer.from(out);
}

/** `text` as a length-prefixed UTF-8 name. */
export function encodeName(text) {
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([encodeUleb(bytes.length), bytes]);
}
