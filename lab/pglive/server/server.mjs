// Serves PGlite (PostgreSQL 18 compiled to WebAssembly) with the pgvector
// extension over the PostgreSQL wire protocol on a loopback port, for
// lab/pglive's embedded server (pglive.Start). It is started and stopped by
// the Go side; nothing here is meant to be run by hand, though
//
//	node server.mjs --port 0
//
// does work (port 0: any free port) and prints where it listens.
//
// Protocol with the parent, one line each on stdout:
//
//	veclab-pglive ready 127.0.0.1:PORT postgres=VERSION
//	veclab-pglive error CODE MESSAGE        (then exit status 1)
//
// CODE is EADDRINUSE when the port is taken, otherwise a short word. The
// server exits when its stdin closes, so it never outlives the Go process
// that started it, even one killed without a chance to stop it.
import { PGlite } from '@electric-sql/pglite'
import { vector } from '@electric-sql/pglite-pgvector'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'

function arg(name, def) {
  const i = process.argv.indexOf('--' + name)
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : def
}

function fail(code, msg) {
  process.stdout.write(`veclab-pglive error ${code} ${String(msg).replace(/\s+/g, ' ')}\n`)
  process.exit(1)
}

const host = arg('host', '127.0.0.1')
const port = Number(arg('port', '0'))
// dataDir: "" keeps the database in memory (the default: a lab run builds
// its tables afresh); a directory keeps it between runs.
const dataDir = arg('data', '')
// --no-vector serves PostgreSQL without the vector extension, as a server
// where pgvector is not installed (lab/pglive tests that error with it).
const noVector = process.argv.includes('--no-vector')
if (!Number.isInteger(port) || port < 0 || port > 65535) fail('EINVAL', `--port ${arg('port')}: want 0…65535`)

let db, server
try {
  const opts = noVector ? {} : { extensions: { vector } }
  if (dataDir) opts.dataDir = dataDir
  db = await PGlite.create(opts)
  // PGlite starts its backend with enable_seqscan=off on the command line
  // (pg_settings.source 'command line'); stock PostgreSQL has it on, and
  // the planner's choice of a sequential scan is what E07 measures. Every
  // socket client shares this one backend session, so a SET here holds
  // for all of them (lab/pglive also sets it per query).
  await db.exec('SET enable_seqscan = on')
  const v = await db.query('SHOW server_version')
  server = new PGLiteSocketServer({ db, host, port, maxConnections: 1 })
  // start() never settles when listen fails (the socket server marks
  // itself active first and only dispatches the error): catch it here.
  server.addEventListener('error', (ev) => {
    const e = ev.detail
    if (e && e.code === 'EADDRINUSE') fail('EADDRINUSE', `${host}:${port} is in use`)
    if (e && e.syscall === 'listen') fail(e.code || 'ELISTEN', e.message)
  })
  // One client at a time: PGlite is a single PostgreSQL backend, and two
  // sessions would interleave their SET commands.
  await server.start()
  process.stdout.write(`veclab-pglive ready ${server.getServerConn()} postgres=${v.rows[0].server_version}\n`)
} catch (e) {
  fail(e && e.code ? e.code : 'ESTART', e && e.message ? e.message : e)
}

async function stop() {
  try {
    await server.stop()
    await db.close()
  } finally {
    process.exit(0)
  }
}
process.stdin.on('end', stop)
process.stdin.on('close', stop)
process.stdin.resume()
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
