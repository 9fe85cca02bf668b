import type { Command, Option } from 'commander';

/**
 * Makes every command of `program` report an unknown option before a required option that is missing. commander
 * checks required options first, so `trips fleets create --nme x` (or `roads generate --sed 7 -o city.graph`) said
 * "required option ... not specified" and hid the typo behind it. runCli applies it to every CLI of the repo. Here the required options are checked in a hook that runs after
 * commander's own checks (unknown options, with its suggestion, then arguments), with commander's wording.
 */
export function reportUnknownOptionsFirst(program: Command): void {
  const required = new Map<Command, Option[]>();
  const collect = (command: Command) => {
    const mine = command.options.filter((option) => option.mandatory);
    for (const option of mine) option.mandatory = false;
    if (mine.length > 0) required.set(command, mine);
    for (const sub of command.commands) collect(sub);
  };
  collect(program);
  program.hook('preAction', (_program, actionCommand) => {
    for (let command: Command | null = actionCommand; command; command = command.parent) {
      for (const option of required.get(command) ?? []) {
        if (command.getOptionValue(option.attributeName()) === undefined) {
          actionCommand.error(`error: required option '${option.flags}' not specified`, {
            code: 'commander.missingMandatoryOptionValue',
          });
        }
      }
    }
  });
}
