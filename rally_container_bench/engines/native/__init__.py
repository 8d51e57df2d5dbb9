"""This host itself: the native baseline's executor and facts."""
