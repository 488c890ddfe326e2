#!/bin/sh
exec "$(dirname "$0")/t_ompi_runs.sh" prterun
