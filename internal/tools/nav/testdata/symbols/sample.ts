import { x } from "./x";

// Greeter says hello.
export class Greeter {
  private name: string;

  constructor(name: string) {
    this.name = name;
  }

  greet(loud: boolean): string {
    if (loud) {
      return `HELLO ${this.name}`;
    }
    return "hello }" + this.name;
  }

  handle = async (e: Event) => {
    console.log(e);
  };
}

export interface Options {
  verbose: boolean;
}

export type Id = string | number;

export async function main(args: string[]): Promise<void> {
  const g = new Greeter(args[0]);
  g.greet(true);
}

export const helper = (a: number) =>
  a + 1;

const table = {
  lookup: function (k) {
    return k;
  },
};

describe("thing", () => {
  it("works", () => {});
});
