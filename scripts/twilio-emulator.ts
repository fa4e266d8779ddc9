/**
 * Runs the Twilio-compatible emulator (test/emulators/twilio/emulator.ts) as a local server, a
 * test tool (docs/telephony.md "The emulator"). It places no real calls.
 *
 *   bun run scripts/twilio-emulator.ts --port 3901 --speed 10 \
 *     --account AC00000000000000000000000000000001:emulator-token [--caller-id +13125550111]
 *
 * Point an organization's carrier at it with api_base_url http://127.0.0.1:3901. Ctrl-C stops it.
 */
import { parseArgs } from 'node:util'
import { TwilioEmulator } from '../test/emulators/twilio/emulator'

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '3901' },
    hostname: { type: 'string', default: '127.0.0.1' },
    speed: { type: 'string', default: '1' },
    account: { type: 'string', multiple: true },
    'caller-id': { type: 'string', multiple: true },
    'max-concurrent-calls': { type: 'string' },
    'calls-per-second': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
})

if (values.help) {
  console.log('Usage: bun run scripts/twilio-emulator.ts [--port N] [--hostname H] [--speed S] [--account SID:TOKEN ...] [--caller-id +1... ...] [--max-concurrent-calls N] [--calls-per-second N]')
  process.exit(0)
}

const port = Number(values.port)
const speed = Number(values.speed)
if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port: not a port: ${values.port}`)
if (!(speed > 0)) throw new Error(`--speed: must be above 0: ${values.speed}`)
const max = values['max-concurrent-calls'] === undefined ? undefined : Number(values['max-concurrent-calls'])
const cps = values['calls-per-second'] === undefined ? undefined : Number(values['calls-per-second'])
if (cps !== undefined && !(cps > 0)) throw new Error(`--calls-per-second: must be above 0: ${values['calls-per-second']}`)

const accounts = (values.account ?? [`AC${'0'.repeat(31)}1:emulator-token`]).map((pair) => {
  const colon = pair.indexOf(':')
  if (colon < 0 || !/^AC[0-9a-fA-F]{32}$/.test(pair.slice(0, colon))) throw new Error(`--account: expected AC<32 hex>:TOKEN, got ${pair}`)
  return { sid: pair.slice(0, colon), authToken: pair.slice(colon + 1), callerIds: values['caller-id'], maxConcurrentCalls: max, callsPerSecond: cps }
})

const emulator = TwilioEmulator.start({ accounts, port, hostname: values.hostname, speed })
console.log(`Twilio emulator on ${emulator.url} (speed ${speed}); accounts: ${accounts.map((a) => a.sid).join(', ')}`)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void emulator.stop().then(() => process.exit(0))
  })
}
