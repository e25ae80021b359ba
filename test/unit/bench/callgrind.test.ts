/**
 * Reading a callgrind dump back: each instruction counted once, in the function that ran it, whichever
 * positions the dump was written with.
 */
import { describe, expect, it } from 'vitest';
import { countDump } from '../../../bench/callgrind.ts';

const BODY = (position: (line: number) => string, unchanged: string) =>
  [
    'fn=(1) v8::internal::Scavenger::ScavengeObject',
    `${position(10)} 40`,
    'fn=(2) v8::internal::compiler::Pipeline::Run',
    `${position(20)} 7`,
    'fn=(3) Builtins_JSEntry',
    `${position(30)} 100`,
    `${position(31)}`,
    'cfn=(1)',
    'calls=2 0x10',
    `${position(32)} 40`,
    'fn=(1)',
    // Relative positions: the address 2 on, the line unchanged (`*`) where the dump has both.
    `${unchanged} 3`,
  ].join('\n');

describe('countDump', () => {
  it('reads the Ir count after the line position (the default dump)', () => {
    const text = `version: 1\npositions: line\nevents: Ir\n${BODY((line) => String(line), '+2')}\n`;
    expect(countDump(text)).toEqual({ total: 150, gc: 43, compiler: 7 });
  });

  it('reads it after the instruction address and the line with --dump-instr=yes', () => {
    const text = `version: 1\npositions: instr line\nevents: Ir\n${BODY((line) => `0x${(0x4000 + line).toString(16)} ${line}`, '+2 *')}\n`;
    expect(countDump(text)).toEqual({ total: 150, gc: 43, compiler: 7 });
  });
});
