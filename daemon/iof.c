/* being written (issue 5): implements the header of this directory */
