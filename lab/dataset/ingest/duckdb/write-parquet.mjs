// Writes a Parquet file with DuckDB from a JSON-lines file of
// {"id": …, "text": …, "vec": [numbers…]} rows, for the tests of
// lab/dataset/ingest: node write-parquet.mjs IN.jsonl OUT.parquet TYPE ROWGROUP
// where TYPE is the SQL type of the vector column (FLOAT[], DOUBLE[],
// FLOAT[384], …). DuckDB's Parquet writer: https://duckdb.org/docs/data/parquet/overview
import { DuckDBInstance } from '@duckdb/node-api';

const [input, output, type, rowGroup] = process.argv.slice(2);
if (!input || !output || !type || !rowGroup) {
  console.error('usage: node write-parquet.mjs IN.jsonl OUT.parquet TYPE ROWGROUP');
  process.exit(2);
}
const q = (s) => "'" + s.replaceAll("'", "''") + "'";
if (!/^(FLOAT|DOUBLE)\[\d*\]$/.test(type) || !/^\d+$/.test(rowGroup)) {
  console.error(`bad TYPE ${type} or ROWGROUP ${rowGroup}`);
  process.exit(2);
}
const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
await conn.run(`COPY (SELECT id, text, CAST(vec AS ${type}) AS embedding
  FROM read_json(${q(input)}, format = 'newline_delimited',
    columns = {id: 'BIGINT', text: 'VARCHAR', vec: 'DOUBLE[]'}) ORDER BY id)
  TO ${q(output)} (FORMAT parquet, ROW_GROUP_SIZE ${rowGroup})`);
const reader = await conn.runAndReadAll(`SELECT count(*) AS n FROM read_parquet(${q(output)})`);
console.log(JSON.stringify({ rows: Number(reader.getRowObjects()[0].n) }));
