// Run the real CLI in-process (main) and keep what it printed: exit code, text, and the JSON it printed, if any.
import { main } from '../../src/cli/main.js';
import { captureIo } from '../audit/_generate.js';

export async function runVouch(...argv: string[]): Promise<{ code: number; out: string; json: any }> {
  const c = captureIo();
  const code = await main(argv, c.io);
  let json: any;
  try {
    json = JSON.parse(c.text());
  } catch {
    json = undefined;
  }
  return { code, out: c.text() + c.errText(), json };
}
