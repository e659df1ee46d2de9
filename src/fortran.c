/* ====================================================================================================
 * 12. Fortran support (colldiag.f90 binds these; everything else it binds directly)
 *
 * Fortran handles are MPI_Fint; the conversions are MPI's own. Kept here, not in the module, because
 * only C can call MPI_Comm_f2c and name stdout.
 * ==================================================================================================== */

int colldiag_file_open_f(MPI_Fint comm, const char *path, int amode, MPI_Fint info, colldiag_driver_t driver, colldiag_file **out)
{
    return colldiag_file_open(MPI_Comm_f2c(comm), path, amode, MPI_Info_f2c(info), driver, out);
}

int colldiag_file_wrap_f(MPI_Fint comm, MPI_Fint fh, colldiag_file **out)
{
    return colldiag_file_wrap(MPI_Comm_f2c(comm), MPI_File_f2c(fh), out);
}

int colldiag_report_print_stdout(colldiag_file *f, const colldiag_xfer *x)
{
    int rc = colldiag_report_print(f, x, stdout);
    fflush(stdout);
    return rc;
}
