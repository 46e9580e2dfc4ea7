"""The memory verbs of the nested layouts (space, mindlink): their paths, trees and command lines."""
