"""rcbench, the command line: one module per group of verbs, the parser in
main (the console script rcbench is main.main)."""
