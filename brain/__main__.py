from brain.cli import program

program()
