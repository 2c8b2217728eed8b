/** Commands as Codec 12 texts for an FMB tracker, and what its answer says of them (D11). */
import { describe, expect, it } from 'vitest';
import { teltonikaAnswerRan, teltonikaCommandText } from '../../../src/gateway/teltonika/commands.js';

describe('Teltonika command texts', () => {
  it('when the immobilizer is on another output or cut by switching it off, then the setdigout text follows', () => {
    expect(teltonikaCommandText('disable_ignition')).toBe('setdigout 1');
    expect(teltonikaCommandText('enable_ignition')).toBe('setdigout 0');
    expect(teltonikaCommandText('disable_ignition', { output: 2, cut: 'on' })).toBe('setdigout ?1');
    expect(teltonikaCommandText('enable_ignition', { output: 3, cut: 'off' })).toBe('setdigout ??1');
    expect(teltonikaCommandText('diagnostics')).toBe('getinfo');
    expect(teltonikaCommandText('lock_doors')).toBeUndefined();
  });

  it('when an ignition command is answered with output states, then it ran; with anything else (Unknown command), then it did not', () => {
    expect(teltonikaAnswerRan('disable_ignition', 'DOUT1:ON Timeout:INFINITY')).toBe(true);
    expect(teltonikaAnswerRan('enable_ignition', 'dout2:off')).toBe(true);
    expect(teltonikaAnswerRan('disable_ignition', 'Unknown command: setdigout 1')).toBe(false);
    expect(teltonikaAnswerRan('enable_ignition', '')).toBe(false);
  });

  it('when diagnostics is answered with anything, then it ran (getinfo has no fixed answer)', () => {
    expect(teltonikaAnswerRan('diagnostics', 'RTC:2026/11/20 8:59 RST:2')).toBe(true);
    expect(teltonikaAnswerRan('diagnostics', '')).toBe(true);
  });
});
