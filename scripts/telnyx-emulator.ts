/**
 * Runs the Telnyx TeXML emulator (test/emulators/telnyx/emulator.ts) as a local server, a test
 * tool (docs/telephony.md "The Telnyx emulator"). It places no real calls.
 *
 *   bun run scripts/telnyx-emulator.ts --port 3902 --speed 10 \
 *     --account 6a9a7976-012e-45d2-9258-6f5dc68d861e:KEY_emulator:1568109700606592442 [--caller-id +13125550111]
 *
 * Point an organization's carrier at it with api_base_url http://127.0.0.1:3902 and the public
 * key it prints. Ctrl-C stops it.
 */
import { parseArgs } from 'node:util'
import { TelnyxEmulator } from '../test/emulators/telnyx/emulator'

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '3902' },
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
  console.log('Usage: bun run scripts/telnyx-emulator.ts [--port N] [--hostname H] [--speed S] [--account UUID:API_KEY:APPLICATION_SID ...] [--caller-id +1... ...] [--max-concurrent-calls N] [--calls-per-second N]')
  process.exit(0)
}

const port = Number(values.port)
const speed = Number(values.speed)
if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port: not a port: ${values.port}`)
if (!(speed > 0)) throw new Error(`--speed: must be above 0: ${values.speed}`)
const max = values['max-concurrent-calls'] === undefined ? undefined : Number(values['max-concurrent-calls'])
const cps = values['calls-per-second'] === undefined ? undefined : Number(values['calls-per-second'])
if (cps !== undefined && !(cps > 0)) throw new Error(`--calls-per-second: must be above 0: ${values['calls-per-second']}`)

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const accounts = (values.account ?? ['6a9a7976-012e-45d2-9258-6f5dc68d861e:KEY_emulator:1568109700606592442']).map((triple) => {
  const [accountSid = '', apiKey = '', applicationSid = ''] = triple.split(':')
  if (!UUID.test(accountSid) || !apiKey || !/^\d{1,32}$/.test(applicationSid)) throw new Error(`--account: expected UUID:API_KEY:APPLICATION_SID, got ${triple}`)
  return { accountSid, apiKey, applicationSid, callerIds: values['caller-id'], maxConcurrentCalls: max, callsPerSecond: cps }
})

const emulator = TelnyxEmulator.start({ accounts, port, hostname: values.hostname, speed })
console.log(`Telnyx emulator on ${emulator.url} (speed ${speed}); accounts: ${accounts.map((a) => a.accountSid).join(', ')}; public key ${emulator.publicKey}`)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void emulator.stop().then(() => process.exit(0))
  })
}
