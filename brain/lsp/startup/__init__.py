"""A fast first answer: the folder walk begun before pygls is imported.

Its names are packed across the pipe, and the code attrs and cattrs compile is kept between starts.
"""
