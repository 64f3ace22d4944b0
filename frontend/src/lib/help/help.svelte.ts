// The keyboard shortcuts overlay (?): whether it is shown.

class Help {
  open = $state(false);

  toggle() {
    this.open = !this.open;
  }
}

export const help = new Help();
