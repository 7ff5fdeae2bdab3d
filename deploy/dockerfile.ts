/**
 * A Dockerfile read into stages and steps (dockerfile-ast parses it), for the static checks
 * (deploy/checks.ts) and for the test that lays out the runtime stage's files without a container
 * runtime (test/integration/deploy-image-files.test.ts).
 */
import { DockerfileParser, type Instruction } from 'dockerfile-ast';

export type DockerStep =
  | { kind: 'WORKDIR'; line: number; path: string }
  | { kind: 'ENV'; line: number; vars: Record<string, string> }
  | { kind: 'ARG'; line: number; name: string; value: string | undefined }
  | { kind: 'COPY'; line: number; from: string | undefined; sources: string[]; dest: string; flags: string[] }
  | { kind: 'RUN'; line: number; shell: string }
  | { kind: 'USER'; line: number; user: string }
  | { kind: 'EXPOSE'; line: number; ports: string[] }
  | { kind: 'HEALTHCHECK'; line: number; text: string }
  | { kind: 'CMD' | 'ENTRYPOINT'; line: number; argv: string[] | undefined; text: string }
  | { kind: 'OTHER'; line: number; keyword: string; text: string };

export interface DockerStage {
  /** `AS` name, or the stage's index when it has none. */
  name: string;
  /** The image as written (`${NODE_IMAGE}`) and with the global ARG defaults filled in. */
  imageWritten: string;
  image: string;
  line: number;
  steps: DockerStep[];
}

export interface ParsedDockerfile {
  /** ARGs before the first FROM, with their defaults. */
  globalArgs: Record<string, string | undefined>;
  stages: DockerStage[];
}

/** Parses a Dockerfile's text. @throws Error when it has no FROM. */
export function parseDockerfile(text: string): ParsedDockerfile {
  const dockerfile = DockerfileParser.parse(text);
  const globalArgs: Record<string, string | undefined> = {};
  for (const arg of dockerfile.getInitialARGs()) {
    const property = arg.getProperty();
    if (property?.getName()) globalArgs[property.getName()] = property.getValue() ?? undefined;
  }
  const stages: DockerStage[] = [];
  for (const instruction of dockerfile.getInstructions()) {
    const keyword = instruction.getKeyword().toUpperCase();
    const line = instruction.getRange().start.line + 1;
    if (keyword === 'FROM') {
      const args = instruction.getArguments().map((a) => a.getValue());
      const imageWritten = args[0] ?? '';
      const named = args.length >= 3 && args[1]?.toUpperCase() === 'AS' ? args[2] : undefined;
      stages.push({
        name: named ?? String(stages.length),
        imageWritten,
        image: imageWritten.replace(/\$\{?(\w+)\}?/g, (whole, name: string) => globalArgs[name] ?? whole),
        line,
        steps: [],
      });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) continue; // a global ARG, read above
    stage.steps.push(step(instruction, keyword, line));
  }
  if (stages.length === 0) throw new Error('Dockerfile: no FROM');
  return { globalArgs, stages };
}

function step(instruction: Instruction, keyword: string, line: number): DockerStep {
  const text = instruction.getArgumentsContent() ?? '';
  const args = instruction.getArguments().map((a) => a.getValue());
  switch (keyword) {
    case 'WORKDIR':
      return { kind: 'WORKDIR', line, path: text.trim() };
    case 'ENV': {
      const vars: Record<string, string> = {};
      const withProperties = instruction as Instruction & {
        getProperties(): { getName(): string; getValue(): string | null }[];
      };
      for (const p of withProperties.getProperties()) vars[p.getName()] = p.getValue() ?? '';
      return { kind: 'ENV', line, vars };
    }
    case 'ARG': {
      const [name = '', value] = text.trim().split(/=(.*)/s);
      return { kind: 'ARG', line, name, value };
    }
    case 'COPY':
    case 'ADD': {
      const flags = (instruction as Instruction & { getFlags(): { getName(): string; getValue(): string | null }[] })
        .getFlags()
        .map((f) => `${f.getName()}=${f.getValue() ?? ''}`);
      const from = flags.find((f) => f.startsWith('from='))?.slice('from='.length);
      const paths = args.filter((a) => !a.startsWith('--'));
      if (keyword === 'ADD') return { kind: 'OTHER', line, keyword, text };
      return { kind: 'COPY', line, from, sources: paths.slice(0, -1), dest: paths.at(-1) ?? '', flags };
    }
    case 'RUN':
      return { kind: 'RUN', line, shell: text };
    case 'USER':
      return { kind: 'USER', line, user: text.trim() };
    case 'EXPOSE':
      return { kind: 'EXPOSE', line, ports: args };
    case 'HEALTHCHECK':
      return { kind: 'HEALTHCHECK', line, text };
    case 'CMD':
    case 'ENTRYPOINT': {
      const json = (
        instruction as Instruction & { getJSONStrings?(): { getJSONValue(): string }[] }
      ).getJSONStrings?.();
      const argv = json && json.length > 0 ? json.map((s) => s.getJSONValue()) : undefined;
      return { kind: keyword, line, argv, text };
    }
    default:
      return { kind: 'OTHER', line, keyword, text };
  }
}

/** The stage named `name`. @throws Error when there is none. */
export function stageNamed(parsed: ParsedDockerfile, name: string): DockerStage {
  const stage = parsed.stages.find((s) => s.name === name);
  if (!stage) throw new Error(`Dockerfile: no stage ${name}`);
  return stage;
}

/** The environment a stage's steps set (ENV), in order. */
export function stageEnv(stage: DockerStage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const s of stage.steps) if (s.kind === 'ENV') Object.assign(env, s.vars);
  return env;
}

/** The stage's last WORKDIR (`/` without one). */
export function stageWorkdir(stage: DockerStage): string {
  let dir = '/';
  for (const s of stage.steps) if (s.kind === 'WORKDIR') dir = s.path.startsWith('/') ? s.path : `${dir}/${s.path}`;
  return dir;
}

/** A version in the tag (`20.20.2-bookworm-slim`, `12.11-slim`) or a digest: not `latest`, not a bare major. */
export function pinnedImage(image: string): boolean {
  if (/@sha256:[0-9a-f]{64}$/.test(image)) return true;
  const tag = /:([^/:@]+)$/.exec(image)?.[1];
  return tag !== undefined && tag !== 'latest' && /^\d+\.\d+/.test(tag);
}
