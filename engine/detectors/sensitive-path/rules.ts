/** Every path rule, in the order they run (ties between overlapping matches keep this order). */
import { CREDENTIAL_RULES } from './credential-rules.ts';
import { SECRET_AND_CONFIG_RULES } from './secret-and-config-rules.ts';
import { SYSTEM_FILE_RULES } from './system-file-rules.ts';
import type { PathRule } from './types.ts';

export const RULES: readonly PathRule[] = [...SYSTEM_FILE_RULES, ...CREDENTIAL_RULES, ...SECRET_AND_CONFIG_RULES];
