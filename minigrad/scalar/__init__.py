"""The scalar layer: ``Value``, one number in a computation graph (lessons 02-03)."""
