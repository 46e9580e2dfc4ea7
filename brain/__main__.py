from brain.cli.main import program

program()
